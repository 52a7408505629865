// One line of `relm doctor`: what was checked, and whether it is fine, worth a warning or a failure.

export interface Check {
  ok: boolean | "warn";
  label: string;
  detail: string;
}

export const check = (label: string, ok: Check["ok"], detail: string): Check => ({ ok, label, detail });
