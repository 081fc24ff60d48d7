; lunad symbols and references for Go.
; @definition.<kind>/@reference.<kind> tag the node, @name its name,
; @container the owner of a method (its receiver type).

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @container
             (pointer_type (type_identifier) @container)
             (generic_type type: (type_identifier) @container)
             (pointer_type (generic_type type: (type_identifier) @container))]))
  name: (field_identifier) @name) @definition.method

; fallback for receivers the pattern above does not know
(method_declaration name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(const_spec name: (identifier) @name) @definition.constant

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.call
; pkg.Func(): @qualifier makes the name "pkg.Func" (resolved by package when pkg is imported)
(call_expression function: (selector_expression operand: (identifier) @qualifier field: (field_identifier) @name)) @reference.call
(qualified_type package: (package_identifier) @qualifier name: (type_identifier) @name) @reference.identifier
(import_spec path: (interpreted_string_literal) @name) @reference.import
(type_identifier) @reference.identifier

; interface methods (container: the interface's type_spec)
(method_elem name: (field_identifier) @name) @definition.method
