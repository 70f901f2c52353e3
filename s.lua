wrk.method = "POST"
wrk.body = [==[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_posts_by_id","arguments":{"id":"1"}}}]==]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
wrk.headers["Mcp-Session-Id"] = "77a48771-566e-41e3-aae7-eb04f219c559"
