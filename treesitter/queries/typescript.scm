; lunad symbols and references for TypeScript.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

(class_declaration name: (type_identifier) @name) @definition.type
(abstract_class_declaration name: (type_identifier) @name) @definition.type
(interface_declaration name: (type_identifier) @name) @definition.type
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type

(method_definition name: (property_identifier) @name) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method

(program (lexical_declaration "const"
  (variable_declarator name: (identifier) @name) @definition.constant))
(program (export_statement (lexical_declaration "const"
  (variable_declarator name: (identifier) @name) @definition.constant)))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call

(import_statement source: (string) @name) @reference.import
(import_specifier name: (identifier) @name) @reference.import

(type_identifier) @reference.identifier
(arguments (identifier) @reference.identifier)

; members of interfaces and object types (options, hooks), class fields
(property_signature name: (property_identifier) @name) @definition.field
(public_field_definition name: (property_identifier) @name) @definition.field
