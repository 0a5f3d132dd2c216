package store

// Connections is a ledger that says how many of its calls it serves at
// once: SQLite's one connection, PostgreSQL's pool. A caller that makes
// many calls at once (catchup daemon) may queue them itself, in an order
// of its own, rather than in the ledger's (SQLite's connection goes to a
// waiter at random).
type Connections interface{ Connections() int }

// ConnectionsOf is st's Connections, or 1 for a ledger that does not say.
func ConnectionsOf(st Store) int {
	if c, ok := st.(Connections); ok && c.Connections() > 0 {
		return c.Connections()
	}
	return 1
}
