internal import CGIO

/// The one Swift owner of a non-floating `GVariant *` reference (transfer full),
/// dropped with `g_variant_unref` in `deinit`.
final class Variant {
    let pointer: OpaquePointer

    init(adopting pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A reference of its own to a value someone else holds (transfer none): wraps
    /// `g_variant_ref_sink`, which also takes ownership of a floating one.
    convenience init(borrowing pointer: OpaquePointer) {
        self.init(adopting: g_variant_ref_sink(pointer))
    }

    deinit {
        g_variant_unref(pointer)
    }

    /// Wraps `g_variant_n_children`.
    var count: Int { Int(g_variant_n_children(pointer)) }

    /// Wraps `g_variant_get_child_value` (transfer full) of a tuple or array.
    func child(_ index: Int) -> Variant {
        Variant(adopting: g_variant_get_child_value(pointer, gsize(index)))
    }

    /// Wraps `g_variant_is_of_type`.
    func isOfType(_ type: String) -> Bool {
        withExtendedLifetime(VariantType(type)) { g_variant_is_of_type(pointer, $0.pointer) != 0 }
    }

    /// Wraps `g_variant_get_uint32`, for a `u`.
    var uint32: UInt32? { isOfType("u") ? g_variant_get_uint32(pointer) : nil }

    /// Wraps `g_variant_get_int32`, for an `i`.
    var int32: Int32? { isOfType("i") ? g_variant_get_int32(pointer) : nil }

    /// Wraps `g_variant_get_string` (transfer none), for an `s`.
    var string: String? { isOfType("s") ? String(cString: g_variant_get_string(pointer, nil)) : nil }

    /// Wraps `g_variant_get_string` (transfer none), for an `o`.
    var objectPath: String? { isOfType("o") ? String(cString: g_variant_get_string(pointer, nil)) : nil }

    /// Wraps `g_variant_get_boolean`, for a `b`.
    var boolean: Bool? { isOfType("b") ? g_variant_get_boolean(pointer) != 0 : nil }

    /// The value under `key` of an `a{sv}`, unboxed: each entry through `child`.
    func lookup(_ key: String) -> Variant? {
        guard isOfType("a{sv}") else { return nil }
        for index in 0..<count {
            let entry = child(index)
            if entry.child(0).string == key { return entry.child(1).unboxed }
        }
        return nil
    }

    /// The entries of a dictionary whose keys are strings or object paths (`a{sv}`,
    /// `a{oa{sa{sv}}}`...), in order: each key and its value, as it is (a `v` stays boxed).
    var entries: [(key: String, value: Variant)] {
        guard isOfType("a{?*}") else { return [] }
        return (0..<count).compactMap { index in
            let entry = child(index)
            let key = entry.child(0)
            guard let name = key.string ?? key.objectPath else { return nil }
            return (name, entry.child(1))
        }
    }

    /// The strings of an `as`, each through `child` and `string`.
    var strings: [String] {
        guard isOfType("as") else { return [] }
        return (0..<count).compactMap { child($0).string }
    }
}

/// The one Swift owner of a `GVariantType *` made by `g_variant_type_new` (transfer full),
/// freed with `g_variant_type_free`. GLib's `G_VARIANT_TYPE` is a cast macro that Swift
/// cannot call, and a Swift string passed as `const char *` lives only for one call.
final class VariantType {
    let pointer: OpaquePointer

    /// Use it inside `withExtendedLifetime`: the pointer is valid while the value lives.
    /// `string` must be a valid type string, such as `(as)`: only literals are passed.
    init(_ string: String) {
        pointer = g_variant_type_new(string)
    }

    deinit {
        g_variant_type_free(pointer)
    }
}

/// Builders of new floating `GVariant *` values, consumed by the tuple, array or call they
/// are passed to (GLib sinks floating references).
enum VariantBuilder {
    /// Wraps `g_variant_new_string`.
    static func string(_ value: String) -> OpaquePointer { g_variant_new_string(value) }
    /// Wraps `g_variant_new_uint32`.
    static func uint32(_ value: UInt32) -> OpaquePointer { g_variant_new_uint32(value) }
    /// Wraps `g_variant_new_int32`.
    static func int32(_ value: Int32) -> OpaquePointer { g_variant_new_int32(value) }
    /// Wraps `g_variant_new_boolean`.
    static func boolean(_ value: Bool) -> OpaquePointer { g_variant_new_boolean(value ? 1 : 0) }
    /// Wraps `g_variant_new_byte`.
    static func byte(_ value: UInt8) -> OpaquePointer { g_variant_new_byte(value) }

    /// Wraps `g_variant_new_tuple`.
    static func tuple(_ children: [OpaquePointer]) -> OpaquePointer {
        var items: [OpaquePointer?] = children
        return g_variant_new_tuple(&items, gsize(children.count))
    }

    /// An `as`: wraps `g_variant_new_array` of `g_variant_new_string`s.
    static func strings(_ values: [String]) -> OpaquePointer {
        var items: [OpaquePointer?] = values.map { string($0) }
        return withExtendedLifetime(VariantType("s")) { g_variant_new_array($0.pointer, &items, gsize(items.count)) }
    }

    /// An array of values of the one type `element` (a literal such as `(sss)`): wraps
    /// `g_variant_new_array`.
    static func array(_ values: [OpaquePointer], of element: String) -> OpaquePointer {
        var items: [OpaquePointer?] = values
        return withExtendedLifetime(VariantType(element)) { g_variant_new_array($0.pointer, &items, gsize(items.count)) }
    }

    /// An `av`: wraps `g_variant_new_array` of the values boxed with `g_variant_new_variant`.
    static func variants(_ values: [OpaquePointer]) -> OpaquePointer {
        var items: [OpaquePointer?] = values.map { g_variant_new_variant($0) }
        return withExtendedLifetime(VariantType("v")) { g_variant_new_array($0.pointer, &items, gsize(items.count)) }
    }

    /// An `a{sv}`: wraps `g_variant_new_array` of `g_variant_new_dict_entry`s whose values
    /// are boxed with `g_variant_new_variant`.
    static func dictionary(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        var items: [OpaquePointer?] = entries.map { key, value in
            g_variant_new_dict_entry(string(key), g_variant_new_variant(value))
        }
        return withExtendedLifetime(VariantType("{sv}")) { g_variant_new_array($0.pointer, &items, gsize(items.count)) }
    }
}

extension Variant {
    /// Wraps `g_variant_get_variant` (transfer full), for a `v`: the value inside.
    var unboxed: Variant? {
        isOfType("v") ? Variant(adopting: g_variant_get_variant(pointer)) : nil
    }
}
