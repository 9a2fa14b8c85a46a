-- wrk script: each request takes the next path of $BENCH_PATHS (space-separated), round robin.
--   BENCH_PATHS="/ /n/demo/ /healthz" wrk -t2 -c64 -d10s -s bench/mixed.lua http://127.0.0.1:8001
local paths = {}
local i = 0

function init(args)
  for path in string.gmatch(os.getenv("BENCH_PATHS") or "/", "%S+") do
    table.insert(paths, path)
  end
  i = math.random(#paths)  -- threads start at different paths
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
