-- wrk: each request asks a random item of the store, 0 to ITEMS - 1 (the loader's URLs), so requests spread
-- over the store's whole B-trees and file. With HOT=p (a percentage), p % of the requests go to the first
-- fifth of the items and the rest to the other four fifths: a working set with a hot part.
local n = tonumber(os.getenv("ITEMS"))
local hot = tonumber(os.getenv("HOT") or "0")
local fifth = math.max(1, math.floor(n / 5))
math.randomseed(os.time())
request = function()
    local item
    if hot > 0 and math.random(100) <= hot then
        item = math.random(0, fifth - 1)
    else
        item = hot > 0 and math.random(fifth, n - 1) or math.random(0, n - 1)
    end
    return wrk.format("GET", "/fetch?url=https://bench.example/items/" .. item)
end
