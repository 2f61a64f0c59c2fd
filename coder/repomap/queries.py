"""The tree-sitter queries that find definitions (@def), references (@ref) and string literals
(@str) in each language.

@def and @ref capture name nodes: @def on the name a definition introduces (a function, a
class, a type, a constant), @ref on a name the code uses (a call, a type, a base class). The
line of a @def is the line the map shows, with each string literal, regular expression and
comment in it (@str) shown as …: a key or a password written in the code is not sent to the
model.
"""

from __future__ import annotations

import hashlib

_PYTHON = """
(class_definition name: (identifier) @def)
(function_definition name: (identifier) @def)
(module (assignment left: (identifier) @def))
(module (expression_statement (assignment left: (identifier) @def)))
(call function: (identifier) @ref)
(attribute attribute: (identifier) @ref)
(decorator (identifier) @ref)
(class_definition superclasses: (argument_list (identifier) @ref))
(type (identifier) @ref)
(import_from_statement name: (dotted_name (identifier) @ref))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @ref)))
[(string) (comment)] @str
"""

_JAVASCRIPT = """
(function_declaration name: (identifier) @def)
(generator_function_declaration name: (identifier) @def)
(class_declaration name: (_) @def)
(method_definition name: (property_identifier) @def)
(variable_declarator
  name: (identifier) @def
  value: [(arrow_function) (function_expression) (class)])
(program (lexical_declaration (variable_declarator name: (identifier) @def)))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @def))))
(call_expression function: (identifier) @ref)
(call_expression function: (member_expression property: (property_identifier) @ref))
(new_expression constructor: (identifier) @ref)
(class_heritage (identifier) @ref)
(import_specifier name: (identifier) @ref)
[(string) (template_string) (regex) (comment)] @str
"""

_TYPESCRIPT = (
    _JAVASCRIPT
    + """
(abstract_class_declaration name: (type_identifier) @def)
(interface_declaration name: (type_identifier) @def)
(type_alias_declaration name: (type_identifier) @def)
(enum_declaration name: (identifier) @def)
(method_signature name: (property_identifier) @def)
(abstract_method_signature name: (property_identifier) @def)
(function_signature name: (identifier) @def)
(type_identifier) @ref
(extends_clause value: (identifier) @ref)
"""
).replace("(class_heritage (identifier) @ref)\n", "")

_GO = """
(function_declaration name: (identifier) @def)
(method_declaration name: (field_identifier) @def)
(type_spec name: (type_identifier) @def)
(method_elem name: (field_identifier) @def)
(source_file (const_declaration (const_spec name: (identifier) @def)))
(source_file (var_declaration (var_spec name: (identifier) @def)))
(call_expression function: (identifier) @ref)
(call_expression function: (selector_expression field: (field_identifier) @ref))
(type_identifier) @ref
(qualified_type name: (type_identifier) @ref)
(composite_literal type: (type_identifier) @ref)
[(interpreted_string_literal) (raw_string_literal) (comment)] @str
"""

_RUST = """
(function_item name: (identifier) @def)
(function_signature_item name: (identifier) @def)
(struct_item name: (type_identifier) @def)
(enum_item name: (type_identifier) @def)
(union_item name: (type_identifier) @def)
(trait_item name: (type_identifier) @def)
(type_item name: (type_identifier) @def)
(const_item name: (identifier) @def)
(static_item name: (identifier) @def)
(macro_definition name: (identifier) @def)
(mod_item name: (identifier) @def)
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(call_expression function: (scoped_identifier name: (identifier) @ref))
(macro_invocation macro: (identifier) @ref)
(type_identifier) @ref
(scoped_identifier path: (identifier) @ref)
(use_declaration argument: (scoped_identifier name: (identifier) @ref))
[(string_literal) (raw_string_literal) (line_comment) (block_comment)] @str
"""

_JAVA = """
(class_declaration name: (identifier) @def)
(interface_declaration name: (identifier) @def)
(enum_declaration name: (identifier) @def)
(record_declaration name: (identifier) @def)
(annotation_type_declaration name: (identifier) @def)
(method_declaration name: (identifier) @def)
(constructor_declaration name: (identifier) @def)
(method_invocation name: (identifier) @ref)
(object_creation_expression type: (type_identifier) @ref)
(type_identifier) @ref
(method_invocation object: (identifier) @ref)
[(string_literal) (line_comment) (block_comment)] @str
"""

_C = """
(function_definition declarator: (function_declarator declarator: (identifier) @def))
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @def)))
(declaration declarator: (function_declarator declarator: (identifier) @def))
(declaration
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @def)))
(struct_specifier name: (type_identifier) @def body: (_))
(union_specifier name: (type_identifier) @def body: (_))
(enum_specifier name: (type_identifier) @def body: (_))
(type_definition declarator: (type_identifier) @def)
(preproc_def name: (identifier) @def)
(preproc_function_def name: (identifier) @def)
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(type_identifier) @ref
[(string_literal) (comment)] @str
"""

_CPP = (
    _C
    + """
(class_specifier name: (type_identifier) @def body: (_))
(function_definition declarator: (function_declarator declarator: (field_identifier) @def))
(function_definition
  declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @def)))
(field_declaration declarator: (function_declarator declarator: (field_identifier) @def))
(namespace_definition name: (namespace_identifier) @def)
(call_expression function: (qualified_identifier name: (identifier) @ref))
(qualified_identifier scope: (namespace_identifier) @ref)
(raw_string_literal) @str
"""
)

_RUBY = """
(method name: (_) @def)
(singleton_method name: (_) @def)
(class name: (constant) @def)
(class name: (scope_resolution name: (constant) @def))
(module name: (constant) @def)
(module name: (scope_resolution name: (constant) @def))
(program (assignment left: (constant) @def))
(call method: (identifier) @ref)
(constant) @ref
[(string) (string_array) (delimited_symbol) (subshell) (regex) (comment)] @str
"""

QUERIES = {
    "python": _PYTHON,
    "javascript": _JAVASCRIPT,
    "typescript": _TYPESCRIPT,
    "tsx": _TYPESCRIPT,
    "go": _GO,
    "rust": _RUST,
    "java": _JAVA,
    "c": _C,
    "cpp": _CPP,
    "ruby": _RUBY,
}
"""Grammar name (as coder.languages names them) -> the query of its definitions and references."""

VERSION = hashlib.sha256(repr(sorted(QUERIES.items())).encode()).hexdigest()[:16]
"""Changes whenever a query does, so that tags cached under other queries are read again."""
