// The Prisma schema engine, offline: creating migrations (diffing the committed migrations
// against schema.prisma) and the full `migrate status` diagnosis need it. Prisma's CLI downloads
// a native engine from Prisma's binary host, which some machines (these, and CI) cannot reach;
// Prisma also publishes it as WebAssembly (@prisma/schema-engine-wasm, pinned to the engines
// hash of our prisma release), driven through a driver adapter. This module drives that for
// diffMigrationsToSchema, createMigration and migrationStatus (and for applyMigrationsWithEngine,
// which tests use to show that the engine and migrations.ts keep the same bookkeeping).
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum, DriverAdapterError } from '@prisma/driver-adapter-utils';
import type {
  SchemaEngine,
  MigrationList,
  SchemaFilter,
  DiagnoseMigrationHistoryOutput,
} from '@prisma/schema-engine-wasm';
import { loadMigrationsList, LOCKFILE, LOCKFILE_CONTENT, MigrationError, migrationsDir, projectRoot } from './migrations.js';

const schemaPath = path.join(projectRoot, 'prisma/schema.prisma');

// Tables that our migrations do not own and the engine must ignore. None today: the
// session table is part of schema.prisma.
const filters: SchemaFilter = { externalTables: [], externalEnums: [] };


type WasmModule = typeof import('@prisma/schema-engine-wasm');

// The slice of the WebAssembly global used here (the project compiles without DOM types).
declare const WebAssembly: {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, unknown>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
};
let wasmModule: Promise<WasmModule> | undefined;
let lastPanicMessage: string | undefined;

// The package's entry imports the .wasm file as an ES module, which Node 20 only allows
// behind a flag; instantiate it by hand with the generated bindings instead.
function loadWasm(): Promise<WasmModule> {
  wasmModule ??= (async () => {
    // The bindings report Rust panics through this global before throwing.
    const registry = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
    registry.PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message(message: string) {
        lastPanicMessage = message;
        if (process.env.DEBUG_SCHEMA_ENGINE) console.error("PANIC", message);
      },
    };
    const bindingsPath = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bindings = (await import(pathToFileURL(bindingsPath).href)) as WasmModule & {
      __wbg_set_wasm(exports: Record<string, unknown>): void;
    };
    const wasmFile = path.join(path.dirname(bindingsPath), 'schema_engine_bg.wasm');
    const { instance } = await WebAssembly.instantiate(await readFile(wasmFile), {
      './schema_engine_bg.js': bindings,
    });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return wasmModule;
}

// The engine's catalog queries return PostgreSQL's internal "char" type (oid 18), which
// adapter-pg cannot map although the engine expects it as a Character column. pg already
// reads its values as strings: the pool relabels such fields as text and tags their names,
// and the adapter's queryRaw turns tagged columns back into Character columns.
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;
const CHAR_TAG = '\u0000char';

function catalogSafeAdapterFactory(connectionString: string): PrismaPg {
  const pool = new pg.Pool({ connectionString, max: 4 });
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<pg.QueryResult>;
  const patched = async (...args: unknown[]) => {
    const result = await query(...args);
    for (const field of result.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) {
        field.dataTypeID = PG_TEXT_OID;
        field.name += CHAR_TAG;
      }
    }
    return result;
  };
  pool.query = patched as typeof pool.query;
  const factory = new PrismaPg(pool, { disposeExternalPool: true });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    // adapter-pg splits scripts at every ";", which breaks function bodies ($$ ... $$) and
    // string literals; PostgreSQL runs a multi-statement script itself (simple protocol).
    adapter.executeScript = async (script) => {
      try {
        await pool.query(script);
      } catch (error) {
        const e = error as pg.DatabaseError;
        throw new DriverAdapterError({
          kind: 'postgres',
          code: e.code ?? 'N/A',
          severity: e.severity ?? 'N/A',
          message: e.message,
          detail: e.detail,
          column: e.column,
          hint: e.hint,
        });
      }
    };
    const queryRaw = adapter.queryRaw.bind(adapter);
    adapter.queryRaw = async (q) => {
      const result = await queryRaw(q);
      result.columnNames.forEach((name, i) => {
        if (name.endsWith(CHAR_TAG)) {
          result.columnNames[i] = name.slice(0, -CHAR_TAG.length);
          result.columnTypes[i] = ColumnTypeEnum.Character;
        }
      });
      return result;
    };
    return adapter;
  };
  return factory;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

type Adapter = Awaited<ReturnType<PrismaPg['connect']>>;

// Disposing twice would end a pool twice; the engine may dispose, and we always do.
function disposeOnce(adapter: Adapter, after?: () => Promise<void>): Adapter {
  const dispose = adapter.dispose.bind(adapter);
  let disposed: Promise<void> | undefined;
  adapter.dispose = () => {
    disposed ??= dispose().then(() => after?.());
    return disposed;
  };
  return adapter;
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// A migration-aware adapter factory whose shadow databases are created and dropped by us
// (adapter-pg's own drops the database while its pool still holds connections), and which
// remembers every adapter it handed out: freeing the engine does not dispose them.
function adapterFactory(url: string) {
  const main = catalogSafeAdapterFactory(url);
  const handedOut: Adapter[] = [];
  const factory = {
    provider: 'postgres' as const,
    adapterName: main.adapterName,
    async connect() {
      const adapter = disposeOnce(await main.connect());
      handedOut.push(adapter);
      return adapter;
    },
    async connectToShadowDb() {
      const name = `prisma_shadow_${randomUUID().replaceAll('-', '')}`;
      await adminQuery(url, `CREATE DATABASE "${name}"`);
      const adapter = disposeOnce(await catalogSafeAdapterFactory(withDatabase(url, name)).connect(), () =>
        adminQuery(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
      );
      handedOut.push(adapter);
      return adapter;
    },
  };
  const close = async () => {
    await Promise.allSettled(handedOut.map((adapter) => adapter.dispose()));
  };
  return { factory, close };
}

async function withEngine<T>(url: string, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  const { SchemaEngine } = await loadWasm();
  const schema = await readFile(schemaPath, 'utf8');
  const adapters = adapterFactory(url);
  try {
    const engine = await SchemaEngine.new(
      { datamodels: [[path.relative(projectRoot, schemaPath), schema]] },
      () => {},
      bindMigrationAwareSqlAdapterFactory(adapters.factory),
    );
    try {
      return await fn(engine);
    } finally {
      engine.free();
    }
  } catch (error) {
    throw engineError(error);
  } finally {
    await adapters.close();
  }
}

function engineError(error: unknown): Error {
  if (lastPanicMessage) {
    const message = lastPanicMessage;
    lastPanicMessage = undefined;
    return new MigrationError(`schema engine panic: ${message}`, { cause: error });
  }
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return new MigrationError(code ? `${code}: ${error.message}` : error.message, { cause: error });
  }
  return new MigrationError(String(error));
}


/**
 * Test only: applies the migrations with the schema engine, as this module did before it
 * applied them itself (and as Prisma's CLI does), so a test can show that both keep the
 * same bookkeeping. Nothing else calls it.
 */
export async function applyMigrationsWithEngine(url: string, dir = migrationsDir): Promise<string[]> {
  const migrationsList = await loadMigrationsList(dir);
  return withEngine(url, async (engine) => {
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters });
    return appliedMigrationNames;
  });
}

/**
 * The SQL that would bring a database built from the committed migrations to schema.prisma.
 * Empty when they agree. Needs a server on which it may create a throwaway database.
 */
export async function diffMigrationsToSchema(url: string): Promise<string> {
  const migrationsList = await loadMigrationsList();
  const schema = await readFile(schemaPath, 'utf8');
  return withEngine(url, async (engine) => {
    const result = await engine.diff({
      from:
        migrationsList.migrationDirectories.length > 0
          ? { tag: 'migrations', ...migrationsList }
          : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: path.relative(projectRoot, schemaPath), content: schema }] },
      script: true,
      exitCode: true,
      filters,
    });
    // exitCode 2 means "there is a difference"; 0 means none.
    return result.exitCode === 2 ? withoutCreatedExtensions(result.stdout ?? '', migrationsList) : '';
  });
}

/**
 * Drops "CREATE EXTENSION" steps for extensions that a committed migration already creates:
 * the engine, reading the replayed migrations through the driver adapter, does not see
 * extensions, so it would propose them again on every diff.
 */
function withoutCreatedExtensions(sql: string, migrations: MigrationList): string {
  const committed = migrations.migrationDirectories
    .map((d) => (d.migrationFile.content.tag === 'ok' ? d.migrationFile.content.value : ''))
    .join('\n');
  const kept = sql.replace(
    /(?:-- CreateExtension\n)?CREATE EXTENSION IF NOT EXISTS "([^"]+)";\n*/g,
    (step: string, name: string) => (committed.includes(`CREATE EXTENSION IF NOT EXISTS "${name}"`) ? '' : step),
  );
  return kept.trim() ? kept : '';
}

/** Writes a new migration directory for the difference, or returns null when there is none. */
export async function createMigration(url: string, intent: string, now = new Date()): Promise<string | null> {
  const sql = await diffMigrationsToSchema(url);
  if (!sql.trim()) return null;
  const slug = intent.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'migration';
  const stamp = now.toISOString().replace(/[-:TZ.]/g, '').slice(0, 14);
  const name = `${stamp}_${slug}`;
  await mkdir(path.join(migrationsDir, name), { recursive: true });
  await writeFile(path.join(migrationsDir, name, 'migration.sql'), sql);
  await writeFile(path.join(migrationsDir, LOCKFILE), LOCKFILE_CONTENT);
  return name;
}

/** Compares the database's migration history with the migrations directory (`migrate status`). */
export async function migrationStatus(url: string): Promise<DiagnoseMigrationHistoryOutput> {
  const migrationsList = await loadMigrationsList();
  return withEngine(url, (engine) =>
    engine.diagnoseMigrationHistory({ migrationsList, optInToShadowDatabase: false, filters }),
  );
}
