// A value already written as JSON: the app's `res.json` (web/json-body.ts) sends its text as it
// is, and JSON.stringify writes the same (its toJSON parses the text), so any other reader of
// the value sees what it stands for.
export class RawJson {
  constructor(readonly json: string) {}

  toJSON(): unknown {
    return JSON.parse(this.json) as unknown;
  }
}
