// The repetition check of issue 35: a sentence of more than 12 words said twice in one text
// (the agent guide, tools/list) is a rule restated, which drifts. Sentences end at . ! or ?
// followed by a space or the end; whitespace (line wraps) counts as one space.

/** Sentences of more than `minWords` words that occur more than once across `texts`, each once. */
export function repeatedSentences(texts: readonly string[], minWords = 12): string[] {
  const seen = new Map<string, number>();
  for (const text of texts) {
    for (const raw of text.replace(/\s+/g, ' ').split(/(?<=[.!?])\s+/)) {
      const sentence = raw.trim();
      if (sentence.split(' ').length <= minWords) continue;
      seen.set(sentence, (seen.get(sentence) ?? 0) + 1);
    }
  }
  return [...seen].filter(([, count]) => count > 1).map(([sentence]) => sentence);
}

/**
 * The prose of a plain-text page: lines of JSON examples (an indented line that starts with a
 * brace, a bracket or a quoted key) and HTTP exchanges are left out, as they quote data, not rules.
 */
export function proseOf(page: string): string {
  return page
    .split('\n')
    .filter((line) => !/^\s+[{}[\]"]/.test(line) && !/^\s+(GET|POST|PUT|HTTP\/1\.1|[A-Z][A-Za-z-]+: )/.test(line))
    .join('\n');
}
