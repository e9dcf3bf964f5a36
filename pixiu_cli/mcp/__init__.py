"""`pixiu mcp`: the investor's memory for other agents over the Model Context Protocol.
`reads` answers each tool with one service call (no SDK); `server` wires them to the SDK."""
