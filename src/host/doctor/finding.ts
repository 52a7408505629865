// What each of relm doctor's checks reports (doctor.ts, journals.ts), in a module of its own so the
// checks need not import the doctor that runs them.

/** Something wrong with relm's own state, and how to set it right. */
export interface Finding {
  problem: string;
  /** What --fix does, or (with no apply) what the person has to do. */
  fix: string;
  apply?(): Promise<void> | void;
}
