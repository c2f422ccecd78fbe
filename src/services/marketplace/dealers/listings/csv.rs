//! CSV as RFC 4180 writes it (fields quoted when they hold a comma, a quote, CR or LF; quotes
//! doubled; lines end in CRLF), made safe for spreadsheets: a cell that begins with `=`, `+`,
//! `-`, `@`, TAB or CR would be read as a formula, so it gets a leading `'` (OWASP's advice).

/// One cell, escaped.
pub fn cell(raw: &str) -> String {
    let guarded = if raw.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{raw}")
    } else {
        raw.to_owned()
    };
    if guarded.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

/// One record: the escaped cells joined by commas, ended by CRLF.
pub fn record<I, S>(cells: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut line = cells
        .into_iter()
        .map(|c| cell(c.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    line.push_str("\r\n");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_follows_rfc_4180() {
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("two\nlines"), "\"two\nlines\"");
        assert_eq!(cell(""), "");
        assert_eq!(record(["a", "b,c"]), "a,\"b,c\"\r\n");
    }

    #[test]
    fn formulas_are_defused() {
        assert_eq!(cell("=1+1"), "'=1+1");
        assert_eq!(cell("+49"), "'+49");
        assert_eq!(cell("-2"), "'-2");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("\tx"), "'\tx");
        assert_eq!(cell("\rx"), "\"'\rx\"");
        assert_eq!(
            cell("=HYPERLINK(\"x\",\"y\")"),
            "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\""
        );
        assert_eq!(cell("a=b"), "a=b");
    }
}
