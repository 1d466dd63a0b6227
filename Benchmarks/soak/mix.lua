-- The soak test's request mix (Benchmarks/soak/run.sh), per request:
--   85%  hit:       one of 100 URLs stored during warm-up (/hit/4k.bin?h=0..99)
--   13%  miss:      a URL no one asked before (/miss/4k.bin?m=<thread>-<n>), stored, evicted later
--    2%  coalesced: the current /slow/ URL, new every 2 s and slow to fetch (~1 s), so the connections
--                   asking for it meanwhile join one origin fetch
-- wrk globals: ORIGIN is set by run.sh through the environment.
local origin = os.getenv("SOAK_ORIGIN") or "http://127.0.0.1:18292"
local counter = 0
local thread_id = 0
local ids = 0

function setup(thread)
    ids = ids + 1
    thread:set("thread_id", ids)
end

local function fetch(target)
    return wrk.format("GET", "/fetch?url=" .. origin .. target)
end

function request()
    counter = counter + 1
    local roll = math.random(100)
    if roll <= 85 then
        return fetch("/hit/4k.bin%3Fh%3D" .. math.random(0, 99))
    elseif roll <= 98 then
        return fetch("/miss/4k.bin%3Fm%3D" .. thread_id .. "-" .. counter)
    else
        return fetch("/slow/8k.bin%3Fc%3D" .. math.floor(os.time() / 2))
    end
end
