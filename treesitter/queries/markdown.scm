; lunad symbols and references for Markdown, block grammar.
; A heading's definition is the whole section it opens.

(section (atx_heading heading_content: (inline) @name)) @definition.heading
; setext headings do not open a section in this grammar: the span is the heading
(setext_heading heading_content: (paragraph (inline) @name)) @definition.heading

(link_reference_definition (link_destination) @reference.link)

; inline spans handed to the inline grammar (markdown_inline.scm)
(inline) @inline
; a pipe table's cell holds inline text without an inline node
(pipe_table_cell) @inline

; fenced code blocks: the content, checked by lunad for quoted-snippet drift
(fenced_code_block (info_string (language) @lang)? (code_fence_content) @reference.snippet)
