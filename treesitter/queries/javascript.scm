; lunad symbols and references for JavaScript.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

(class_declaration name: (identifier) @name) @definition.type
(method_definition name: (property_identifier) @name) @definition.method

(program (lexical_declaration "const"
  (variable_declarator name: (identifier) @name) @definition.constant))
(program (export_statement (lexical_declaration "const"
  (variable_declarator name: (identifier) @name) @definition.constant)))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call

(import_statement source: (string) @name) @reference.import
(import_specifier name: (identifier) @name) @reference.import
(call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string) @name)
  (#eq? @_fn "require")) @reference.import

(arguments (identifier) @reference.identifier)
