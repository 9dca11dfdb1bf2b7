-- wrk script for the ingest benchmark: every request is a POST /event whose
-- Authorization header rotates across the API keys in a file (one per line),
-- so that the load spreads over many workspaces the way real traffic does.
--
--   wrk -s bench/ingest.lua <url>/event -- <keys-file>
--
-- The baseline server gets the same keys file and the same bytes; it ignores them.
-- done() prints one JSON line, prefixed with "WRK_JSON ", that ingest.ts parses;
-- latencies there are in microseconds.

local body = '{"message":"New signup: jane@example.com upgraded from the free trial",'
  .. '"event":"user.signup","channel":"signups","title":"New signup",'
  .. '"tags":["a","b"],"data":{"plan":"pro","n":42}}'

local threads = {}
local counter = 1

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  keys = {}
  local path = args[1]
  if path then
    for line in io.lines(path) do
      if #line > 0 then table.insert(keys, "Bearer " .. line) end
    end
  end
  -- Threads start at different offsets so they do not hit the same key in step.
  counter = ((id or 1) - 1) * 37
  wrk.method = "POST"
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  if #keys > 0 then
    counter = counter + 1
    -- wrk.format() reads wrk.headers; a headers argument would replace them all.
    wrk.headers["Authorization"] = keys[(counter % #keys) + 1]
  end
  return wrk.format()
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.1f,"max":%d,"stdev":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max, latency.stdev,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
