-- wrk: each request asks a random item of the store, 0 to ITEMS - 1 (the loader's URLs), so requests spread
-- over the store's whole B-trees and file.
local n = tonumber(os.getenv("ITEMS"))
math.randomseed(os.time())
request = function()
    return wrk.format("GET", "/fetch?url=https://bench.example/items/" .. math.random(0, n - 1))
end
