// What the benchmarks read from Linux's /proc: the machine, resident
// memory and CPU time of processes, and how busy the whole machine was. CPU
// time per request is the figure that survives a noisy machine: requests per
// second drop when something else takes the cores, CPU time per request barely moves.
import { readdirSync, readFileSync } from 'node:fs'
import { cpus, release, totalmem } from 'node:os'

export const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

const CLK_TCK = (() => {
  const r = Bun.spawnSync(['getconf', 'CLK_TCK'], { stdout: 'pipe', stderr: 'ignore' })
  return Number(r.stdout.toString().trim()) || 100
})()

export function machine(load1m: number) {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  const model = cpuinfo.match(/^model name\s*:\s*(.+)$/m)?.[1] ?? cpus()[0]?.model ?? 'unknown'
  return { cpu_model: model.trim(), cores: cpus().length, memory_gb: round(totalmem() / 2 ** 30, 1), kernel: release(), load_avg_1m_at_start: round(load1m, 2) }
}

/** utime + stime of a process, in seconds; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // comm may hold spaces
    return (Number(f[11]) + Number(f[12])) / CLK_TCK
  } catch {
    return 0
  }
}

/** The pids of the PostgreSQL backends serving database `db` (only when PostgreSQL runs on this machine). */
export function backendPids(db: string): number[] {
  const pids: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8')
      if (cmd.startsWith('postgres: ') && cmd.includes(` ${db} `)) pids.push(Number(d))
    } catch {} // exited meanwhile
  }
  return pids
}

/**
 * Busy, stolen and total CPU time of the whole machine, in seconds. On a VM,
 * steal is time the hypervisor gave to someone else: a run with much of it was
 * measured on fewer cores than the machine claims.
 */
function machineSeconds() {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number) as number[]
  const busy = user! + nice! + system! + irq! + softirq!
  return { busy: busy / CLK_TCK, steal: steal! / CLK_TCK, total: (busy + idle! + iowait! + steal!) / CLK_TCK }
}

/**
 * CPU time of named groups of processes, and how busy the whole machine was,
 * between start and stop; per request and in cores. Groups are looked up again
 * at stop, so a process that exits in between is simply not counted. With
 * `born`, a process first listed at stop counts all its CPU time: for groups
 * whose lookup finds every process there is (PostgreSQL's backends), one that
 * appeared in the window was born in it (a pool opening a connection late).
 */
export function cpuMeter(groups: Record<string, () => number[]>, opts: { born?: boolean } = {}) {
  const sum = (pids: number[]) => pids.reduce((a, p) => a + cpuSeconds(p), 0)
  const start = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, new Map(f().map((p) => [p, cpuSeconds(p)]))]))
  const m0 = machineSeconds()
  return {
    /** Per `unit` (`*_us_per_<unit>`, of which there were `requests`) and in cores. */
    stop(requests: number, wallSeconds: number, unit = 'req') {
      const m1 = machineSeconds()
      const out: Record<string, number> = {}
      for (const [k, f] of Object.entries(groups)) {
        const pids = f().filter((p) => opts.born || start[k]!.has(p))
        const used = sum(pids) - pids.reduce((a, p) => a + (start[k]!.get(p) ?? 0), 0)
        out[`${k}_us_per_${unit}`] = round((used * 1e6) / Math.max(1, requests), 1)
        out[`${k}_cores`] = round(used / wallSeconds, 2)
      }
      const total = Math.max(1e-9, m1.total - m0.total)
      out.machine_busy_pct = round((100 * (m1.busy - m0.busy)) / total, 1)
      out.machine_steal_pct = round((100 * (m1.steal - m0.steal)) / total, 1)
      out.machine_busy_cores = round((m1.busy - m0.busy) / wallSeconds, 2)
      return out
    },
  }
}

/**
 * What none of the metered groups used of the machine's busy time, in
 * cores: the kernel's softirq work for loopback traffic, and anything else
 * running on the machine. Call it once every `*_cores` figure is in `cpu`.
 */
export function addOtherCores(cpu: Record<string, number>) {
  const ours = Object.entries(cpu).filter(([k]) => k.endsWith('_cores') && k !== 'machine_busy_cores').reduce((a, [, v]) => a + v, 0)
  cpu.other_cores = round(cpu.machine_busy_cores! - ours, 2)
  return cpu
}

/** A field of /proc/<pid>/status in MB; throws once the process is gone. */
function statusMb(pid: number, name: string) {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))
  return m ? Number(m[1]) / 1024 : 0
}

/** Resident memory of a process now, in MB; 0 once it is gone. */
export function rssMb(pid: number): number {
  try {
    return round(statusMb(pid, 'VmRSS'), 1)
  } catch {
    return 0
  }
}

/** Samples VmRSS while running; peak() also reads VmHWM (the kernel's own high-water mark). */
export function rssSampler(pid: number, everyMs = 100) {
  let max = 0
  const timer = setInterval(() => {
    try {
      max = Math.max(max, statusMb(pid, 'VmRSS'))
    } catch {} // the process may be gone
  }, everyMs)
  return {
    peak() {
      clearInterval(timer)
      let hwm = 0
      try {
        hwm = statusMb(pid, 'VmHWM')
      } catch {}
      return { sampled_max_mb: round(max, 1), vmhwm_mb: round(hwm, 1), peak_mb: round(Math.max(max, hwm), 1) }
    },
  }
}

/**
 * Pids of every nats-server on this machine (the benchmarks run one on
 * loopback); with `url`, only those whose command line names its port (-p,
 * --port), when one does: on a machine where others' tests run their own
 * nats-servers, the run's server alone.
 */
export function natsPids(url?: string): number[] {
  const all: { pid: number; args: string[] }[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'nats-server') all.push({ pid: Number(d), args: readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0') })
    } catch {}
  }
  const port = url ? new URL(url).port || '4222' : null
  const named = all.filter(({ args }) => args.some((a, i) => ((a === '-p' || a === '--port') && args[i + 1] === port) || a === `-p=${port}` || a === `--port=${port}`))
  return (port && named.length ? named : all).map((s) => s.pid)
}

// ---------------------------------------------------------------- statistics

/** The p-th percentile of an ascending array (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

export function dist(values: number[]) {
  const a = Array.from(Float64Array.from(values).sort())
  return { n: a.length, p50: round(percentile(a, 50), 1), p90: round(percentile(a, 90), 1), p99: round(percentile(a, 99), 1), max: round(a.at(-1) ?? NaN, 1) }
}

/** The median (of an even count, the lower middle value). */
export function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y)
  return a.length ? a[(a.length - 1) >> 1]! : NaN
}

export const mean = (a: number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : NaN)

/** Least-squares slope of y over x. */
export function slope(xs: number[], ys: number[]): number {
  const mx = mean(xs)
  const my = mean(ys)
  let num = 0
  let den = 0
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my)
    den += (xs[i]! - mx) ** 2
  }
  return den ? num / den : 0
}

/** Mean of the first and of the last quarter of a series, and the difference. */
export function quarters(ys: number[]) {
  const q = Math.max(1, Math.floor(ys.length / 4))
  const first = mean(ys.slice(0, q))
  const last = mean(ys.slice(-q))
  return { first_quarter_mean: round(first, 1), last_quarter_mean: round(last, 1), growth: round(last - first, 1) }
}
