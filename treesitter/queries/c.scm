; lunad symbols and references for C.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(preproc_function_def name: (identifier) @name) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.type
(union_specifier name: (type_identifier) @name body: (_)) @definition.type
(enum_specifier name: (type_identifier) @name body: (_)) @definition.type
(type_definition declarator: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.constant
(enumerator name: (identifier) @name) @definition.constant

(call_expression function: (identifier) @name) @reference.call
(preproc_include path: [(string_literal) (system_lib_string)] @name) @reference.import

(type_identifier) @reference.identifier
