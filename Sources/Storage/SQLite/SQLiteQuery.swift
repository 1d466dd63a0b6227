/// SQL fixed when the program is built, for the statements run on every request (lookups, chunk
/// reads): a connection prepares it once and finds it again by the address of its text, where SQL
/// given as a `String` is hashed and compared whole on each run.
struct SQLiteQuery: Sendable {
    /// The SQL text.
    let sql: StaticString

    /// Names a query.
    /// - Parameter sql: the SQL text, a literal.
    init(_ sql: StaticString) { self.sql = sql }
}
