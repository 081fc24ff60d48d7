; lunad references for Markdown, inline grammar; run only on inline spans
; that contain '`' or '['. [[wiki]] links are found by a scan (markdown.go).

(code_span) @reference.code
(inline_link (link_destination) @reference.link)
(image (link_destination) @reference.link)
