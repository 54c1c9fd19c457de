/// Whether a person typing `prefix` may mean the address `address` of `name`: the address,
/// the name, or a word of the name begins with it, ignoring case (what the sheet's
/// completion offers, from the history of recipients and from address books alike).
public func addressMatches(_ prefix: String, address: String, name: String?) -> Bool {
    let wanted = prefix.lowercased()
    guard !wanted.isEmpty else { return false }
    if address.lowercased().hasPrefix(wanted) { return true }
    guard let name = name?.lowercased() else { return false }
    return name.hasPrefix(wanted) || name.split(separator: " ").contains { $0.hasPrefix(wanted) }
}
