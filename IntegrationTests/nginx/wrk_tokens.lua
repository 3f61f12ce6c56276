-- wrk script: cycles through pre-generated tokens, one per request, so no verified-token cache helps
-- (unless the file is short on purpose). Usage: wrk ... -s wrk_tokens.lua URL -- TOKENS_FILE
-- Every request string is built in init(), so wrk spends no time formatting during the run.
local requests, n, i = {}, 0, 0

function init(args)
    local f = assert(io.open(args[1], "r"))
    for line in f:lines() do
        local token = line:match("^%d (%S+)$") or line:match("^(%S+)$")
        if token then
            n = n + 1
            requests[n] = wrk.format("GET", wrk.path, { ["Authorization"] = "Bearer " .. token })
        end
    end
    f:close()
    assert(n > 0, "no tokens in " .. args[1])
    -- Threads start at different offsets, so two threads never send the same sequence.
    i = (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % n
end

function request()
    i = i % n + 1
    return requests[i]
end
