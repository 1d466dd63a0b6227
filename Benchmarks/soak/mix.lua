-- The soak test's request mix (Benchmarks/soak/run.sh), per request (the default mix's shares):
--   85%  hit:       one of 100 URLs stored during warm-up (/hit/4k.bin?h=0..99)
--   13%  miss:      a URL no one asked before (/miss/4k.bin?m=<thread>-<n>), stored, evicted later
--    2%  coalesced: the current /slow/ URL, new every 2 s and slow to fetch (~1 s), so the connections
--                   asking for it meanwhile join one origin fetch
-- run.sh passes the origin in SOAK_ORIGIN and the shares in SOAK_HIT_PERCENT, SOAK_HIT_URLS and
-- SOAK_SLOW_PERCENT. Each wrk thread has its own Lua state; setup() numbers
-- them (the global thread_id) so that their unique miss URLs never collide.
local origin = os.getenv("SOAK_ORIGIN") or "http://127.0.0.1:18292"
local hitPercent = tonumber(os.getenv("SOAK_HIT_PERCENT") or "85")
local hitURLs = tonumber(os.getenv("SOAK_HIT_URLS") or "100")
local slowPercent = tonumber(os.getenv("SOAK_SLOW_PERCENT") or "2")
local counter = 0
local ids = 0

function setup(thread)
    ids = ids + 1
    thread:set("thread_id", ids)
end

function init(args)
    math.randomseed(os.time() * 100 + (thread_id or 0))
end

local function fetch(target)
    return wrk.format("GET", "/fetch?url=" .. origin .. target)
end

function request()
    counter = counter + 1
    local roll = math.random(100)
    if roll <= hitPercent then
        return fetch("/hit/4k.bin%3Fh%3D" .. math.random(0, hitURLs - 1))
    elseif roll <= 100 - slowPercent then
        return fetch("/miss/4k.bin%3Fm%3D" .. (thread_id or 0) .. "-" .. counter)
    else
        return fetch("/slow/8k.bin%3Fc%3D" .. math.floor(os.time() / 2))
    end
end
