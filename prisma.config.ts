// Prisma CLI configuration. On a machine that has Prisma's native schema engine,
// `npx prisma migrate deploy` / `migrate status` work as usual with DATABASE_URL set.
// On machines without it (these), the project's offline tooling does the same job:
// see src/db/migrations.ts and `npm run migrate:*`.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
