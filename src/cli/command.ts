/** A subcommand of `stackfield` (main.ts dispatches to them). */
export interface Command {
  /** One line for the usage text. */
  summary: string;
  /** What `stackfield <command> --help` prints. */
  help: string;
  /** Runs the command on its arguments; resolves to the exit code (errors are thrown, main.ts reports them). */
  run(argv: string[]): Promise<number>;
}
