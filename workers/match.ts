// Piscina task: which routers of a workspace match each event's key. Patterns
// are compiled once per thread and kept while their text is unchanged, so a
// router edit (a new pattern text) naturally misses the cache.
import { compilePattern } from '../src/pattern'

export interface MatchJob {
  // Routers by workspace id: [router id, pattern] pairs.
  routers: Record<string, [string, string][]>
  // Per event: workspace id and event key.
  events: [number, string | null][]
}

/** For each event, the ids of the routers whose pattern matches its key. */
export default function match(job: MatchJob): string[][] {
  return job.events.map(([ws, key]) => {
    const out: string[] = []
    for (const [id, pattern] of job.routers[ws] ?? []) if (compilePattern(pattern)(key)) out.push(id)
    return out
  })
}
