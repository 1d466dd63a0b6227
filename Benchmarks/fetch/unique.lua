-- wrk script for Benchmarks/fetch/run.sh's miss throughput: every request asks for a URL nobody asked
-- for before (PREFIX, then a per-run salt and a counter), so every one is a cache miss. run.sh ends PREFIX
-- with a tag of its own to find the flood's stored entries by; headers given with wrk -H are sent too.
local prefix = os.getenv("PREFIX")
local salt = string.format("%d-%d-", os.time(), math.random(1, 1000000000))
local counter = 0

request = function()
    counter = counter + 1
    return wrk.format(nil, prefix .. salt .. counter)
end
