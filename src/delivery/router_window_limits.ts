// The bounds of a router's throttle and digest (router_windows.ts checks
// them; the API's schema, the docs, the CLI and the dashboard's form show
// them). A file without imports: the dashboard's bundle takes it whole.
export const WINDOW_LIMITS = {
  throttleLimitMax: 10_000,
  // A throttle period under a second counts nothing a rate limit would not; a day is the longest a counter is kept.
  perMin: 1,
  perMax: 86_400,
  // A digest window shorter than 10 s gathers little and costs a timer row per key; a day is the longest an event waits.
  windowMin: 10,
  windowMax: 86_400,
  digestMaxMax: 1_000, // events in one digest: what a chat message or e-mail can list, and one webhook body of bounded size
  digestMaxDefault: 100,
  keyTemplate: 200, // characters of the key's template
  key: 200, // characters of a rendered key: longer ones are cut
} as const
