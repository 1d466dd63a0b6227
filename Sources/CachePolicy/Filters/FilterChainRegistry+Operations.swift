extension FilterChainRegistry {
    /// Replaces the whole chain (`PUT /filters`).
    ///
    /// - Parameters:
    ///   - filters: The new filters, in order.
    ///   - precondition: The `If-Match` check, if any.
    /// - Returns: The new chain.
    /// - Throws: See ``update(precondition:_:)``.
    @discardableResult
    public func replaceAll(with filters: [FilterDefinition], precondition: ((Int) -> Bool)? = nil) throws -> FilterChain
    {
        try update(precondition: precondition) { $0 = filters }
    }

    /// Puts ``FilterChain/defaultFilters`` back as the whole chain (`POST /filters/defaults`).
    ///
    /// - Parameter precondition: The `If-Match` check, if any.
    /// - Returns: The new chain.
    /// - Throws: See ``update(precondition:_:)``.
    @discardableResult
    public func restoreDefaults(precondition: ((Int) -> Bool)? = nil) throws -> FilterChain {
        try update(precondition: precondition) { $0 = FilterChain.defaultFilters }
    }

    /// Makes `filters` the chain unless it already is (same filters, same order, same canonical JSON), so
    /// that a filters file applied at every start bumps the version only when it changed.
    ///
    /// - Parameter filters: The chain the file declares.
    /// - Returns: Whether the chain changed.
    /// - Throws: See ``update(precondition:_:)``.
    @discardableResult
    public func adopt(_ filters: [FilterDefinition]) throws -> Bool {
        guard chain.filters.map(\.canonicalJSON) != filters.map(\.canonicalJSON) else { return false }
        try update { $0 = filters }
        return true
    }

    /// Adds a filter at the end, or just before the one named `before` (`POST /filters`).
    ///
    /// - Parameters:
    ///   - filter: The new filter.
    ///   - before: The name of the filter it goes in front of; `nil` appends.
    ///   - precondition: The `If-Match` check, if any.
    /// - Returns: The new chain.
    /// - Throws: `FilterChainError.duplicateName`, `.beforeNotFound`, or see ``update(precondition:_:)``.
    @discardableResult
    public func add(
        _ filter: FilterDefinition, before: String? = nil, precondition: ((Int) -> Bool)? = nil
    ) throws -> FilterChain {
        try update(precondition: precondition) { filters in
            guard !filters.contains(where: { $0.name == filter.name }) else {
                throw FilterChainError.duplicateName(filter.name)
            }
            if let before {
                guard let index = filters.firstIndex(where: { $0.name == before }) else {
                    throw FilterChainError.beforeNotFound(before)
                }
                filters.insert(filter, at: index)
            } else {
                filters.append(filter)
            }
        }
    }

    /// Replaces the filter of the same name in place, or adds it at the end when there is none
    /// (`PUT /filters/<name>`).
    ///
    /// - Parameters:
    ///   - filter: The filter.
    ///   - precondition: The `If-Match` check, if any.
    /// - Returns: The new chain, and whether the filter was created rather than replaced.
    /// - Throws: See ``update(precondition:_:)``.
    public func put(
        _ filter: FilterDefinition, precondition: ((Int) -> Bool)? = nil
    ) throws -> (chain: FilterChain, created: Bool) {
        var created = false
        let chain = try update(precondition: precondition) { filters in
            if let index = filters.firstIndex(where: { $0.name == filter.name }) {
                filters[index] = filter
            } else {
                created = true
                filters.append(filter)
            }
        }
        return (chain, created)
    }

    /// Removes one filter (`DELETE /filters/<name>`).
    ///
    /// - Parameters:
    ///   - name: The filter's name.
    ///   - precondition: The `If-Match` check, if any.
    /// - Returns: The new chain.
    /// - Throws: `FilterChainError.notFound`, or see ``update(precondition:_:)``.
    @discardableResult
    public func remove(named name: String, precondition: ((Int) -> Bool)? = nil) throws -> FilterChain {
        try update(precondition: precondition) { filters in
            guard let index = filters.firstIndex(where: { $0.name == name }) else {
                throw FilterChainError.notFound(name)
            }
            filters.remove(at: index)
        }
    }

    /// Removes every filter (`DELETE /filters`); the default policy then decides every request.
    ///
    /// - Parameter precondition: The `If-Match` check, if any.
    /// - Returns: The new, empty chain.
    /// - Throws: See ``update(precondition:_:)``.
    @discardableResult
    public func removeAll(precondition: ((Int) -> Bool)? = nil) throws -> FilterChain {
        try update(precondition: precondition) { $0.removeAll() }
    }
}
