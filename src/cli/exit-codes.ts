/** The process exit codes relm promises to scripts (see ARCHITECTURE.md). */
export const EXIT = {
  done: 0,
  error: 1,
  usage: 2,
  budget: 3,
  gatesFailing: 4,
  interrupted: 130,
} as const;
