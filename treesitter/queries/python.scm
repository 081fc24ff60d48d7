; lunad symbols and references for Python.

(function_definition name: (identifier) @name) @definition.function

(class_definition
  body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition
  body: (block (decorated_definition
    definition: (function_definition name: (identifier) @name) @definition.method)))

(class_definition name: (identifier) @name) @definition.type

; module-level UPPER_CASE assignments are constants
(module (expression_statement
  (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call

(import_statement name: (dotted_name) @name) @reference.import
(import_statement name: (aliased_import name: (dotted_name) @name)) @reference.import
(import_from_statement module_name: (dotted_name) @name) @reference.import
(import_from_statement module_name: (relative_import) @name) @reference.import
; the names of a from-import, with the module they come from (@module)
; and the name they are bound to (@alias): a package's __init__.py
; re-exports them (resolution follows these, reexports.go)
(import_from_statement module_name: (_) @module name: (dotted_name) @name) @reference.import
(import_from_statement module_name: (_) @module name: (aliased_import name: (dotted_name) @name alias: (identifier) @alias)) @reference.import

; names passed as values: callbacks, decorators, base classes
(argument_list (identifier) @reference.identifier)
(decorator (identifier) @reference.identifier)

; class attributes and enum members: NAME = ... or name: T = ... in a class body
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
