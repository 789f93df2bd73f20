/** Escapes LIKE/ILIKE wildcards (and the escape character) so `text` matches only itself. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
