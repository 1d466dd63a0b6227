-- wrk script: prints the latency distribution of a run on one line (ms), to tell a wider tail from a
-- slower run. p99 divided by the mean compares the shape of two servers' distributions when their
-- throughput differs a little. Usage: wrk -t1 -c64 -d5s -s Benchmarks/fetch/percentiles.lua URL
done = function(summary, latency, requests)
    local out = {}
    for _, p in ipairs({ 10, 25, 50, 75, 90, 95, 99, 99.9 }) do
        out[#out + 1] = string.format("p%s=%.1f", p, latency:percentile(p) / 1000)
    end
    io.write(string.format("latency mean=%.1f sd=%.1f min=%.1f max=%.1f %s\n", latency.mean / 1000,
        latency.stdev / 1000, latency.min / 1000, latency.max / 1000, table.concat(out, " ")))
end
