// The library's one error class.  A form that does not decode carries the
// server's own detail sentence (the core's bf_status_message), and the
// SQLSTATE the server raises for it, so that an application handles a bad
// filter the same whichever side found it.
export class BloomError extends Error {
  /** The SQLSTATE PostgreSQL raises for the same problem (22P02, 22023, 22003, ...). */
  readonly code: string;
  /** The rule broken, as a sentence: the server's errdetail. */
  readonly detail: string;

  constructor(message: string, code: string, detail: string) {
    super(message);
    this.name = "BloomError";
    this.code = code;
    this.detail = detail;
  }
}
