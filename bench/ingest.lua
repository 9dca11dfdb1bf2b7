-- wrk script for the ingest benchmark: every request is a POST /event whose
-- Authorization header rotates across the API keys in a file (one per line),
-- so that the load spreads over many workspaces the way real traffic does.
--
--   wrk -s bench/ingest.lua <url>/event -- <keys-file>
--   wrk -s bench/ingest.lua <url>/events -- <keys-file> <N>
--
-- With N, every request is a POST /events of N copies of the event, and the
-- events of each 200 are counted: accepted (an eventId) or refused (a problem).
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
  batch = tonumber(args[2] or "0") or 0
  items_ok, items_refused = 0, 0
  if batch > 0 then
    local items = {}
    for i = 1, batch do items[i] = body end
    wrk.body = '{"events":[' .. table.concat(items, ",") .. ']}'
    -- Defined only for batches: with it, wrk reads every response body.
    response = function(status, headers, resbody)
      if status ~= 200 then return end
      local _, ok = string.gsub(resbody, '"eventId"', "")
      local _, refused = string.gsub(resbody, '"status":', "")
      items_ok = items_ok + ok
      items_refused = items_refused + refused
    end
  else
    wrk.body = body
  end
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
  local ok, refused = 0, 0
  for _, t in ipairs(threads) do
    ok = ok + (t:get("items_ok") or 0)
    refused = refused + (t:get("items_refused") or 0)
  end
  io.write(string.format(
    'WRK_JSON {"duration_us":%d,"requests":%d,"bytes":%d,"items_ok":%d,"items_refused":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.1f,"max":%d,"stdev":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.duration, summary.requests, summary.bytes, ok, refused,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max, latency.stdev,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
