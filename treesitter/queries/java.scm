; lunad symbols and references for Java.

(class_declaration name: (identifier) @name) @definition.type
(interface_declaration name: (identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type
(record_declaration name: (identifier) @name) @definition.type
(annotation_type_declaration name: (identifier) @name) @definition.type

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method

; static final fields are constants
(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(enum_constant name: (identifier) @name) @definition.constant

(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call

(import_declaration (scoped_identifier) @name) @reference.import

(type_identifier) @reference.identifier
