// Set of common pub consts.

/// Fallback row length
pub const FALLBACK_ROW_LEN: usize = 81;

// Column widths used for console printing.

/// Language column width
pub const LANGUAGE_COLUMN_WIDTH: usize = 10;

/// Path column width
pub const PATH_COLUMN_WIDTH: usize = 80;

/// Files column width
pub const FILES_COLUMN_WIDTH: usize = 8;

/// Lines column width
pub const LINES_COLUMN_WIDTH: usize = 12;

/// Code column width
pub const CODE_COLUMN_WIDTH: usize = 12;

/// Comments column width
pub const COMMENTS_COLUMN_WIDTH: usize = 12;

/// Blanks column width
pub const BLANKS_COLUMN_WIDTH: usize = 12;
