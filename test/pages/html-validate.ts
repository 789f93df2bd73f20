// HTML validation of rendered pages with html-validate's recommended rules.
import { HtmlValidate } from 'html-validate';

const validator = new HtmlValidate({
  extends: ['html-validate:recommended'],
  rules: {
    // Page titles carry the site name; a long merchant name must not fail a page.
    'long-title': 'off',
    // Style only: `<!doctype html>` is valid HTML, and EJS leaves blanks where tags were.
    'doctype-style': 'off',
    'no-trailing-whitespace': 'off',
  },
});

/** The problems of one page, one line each (empty when the page is valid). */
export async function htmlProblems(html: string): Promise<string[]> {
  const report = await validator.validateString(html);
  return report.results.flatMap((result) =>
    result.messages.map((m) => `${m.line}:${m.column} ${m.ruleId}: ${m.message} [${html.split('\n')[m.line - 1]?.trim().slice(0, 160)}]`),
  );
}
