; lunad symbols and references for Rust.

(function_item name: (identifier) @name) @definition.function

(impl_item
  type: [(type_identifier) @container
         (generic_type type: (type_identifier) @container)]
  body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item
  name: (type_identifier) @container
  body: (declaration_list [(function_item name: (identifier) @name)
                           (function_signature_item name: (identifier) @name)] @definition.method))

(struct_item name: (type_identifier) @name) @definition.type
(enum_item name: (type_identifier) @name) @definition.type
; an enum's variants, named Enum::Variant (a constant of the enum)
(enum_item
  name: (type_identifier) @container
  body: (enum_variant_list (enum_variant name: (identifier) @name) @definition.constant))
(union_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.type
(type_item name: (type_identifier) @name) @definition.type

(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call

(use_declaration argument: (_) @name) @reference.import
; a pub use re-exports what it imports (@exported: its visibility; resolution
; follows it, reexports.go)
(use_declaration (visibility_modifier) @exported argument: (_) @name) @reference.import

(type_identifier) @reference.identifier
