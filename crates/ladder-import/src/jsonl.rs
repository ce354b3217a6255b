//! Streaming JSON Lines reader.

use crate::Origin;
use ladder_events::{json::parse_line, Event, Rule, Violation};
use std::io::BufRead;
use std::sync::Arc;

/// Reads events from a JSON Lines stream, one per non-blank line, in constant memory.
///
/// Yields `(origin, Ok(event))` or `(origin, Err(violation))` for a line that is not a valid event
/// (malformed JSON, non-UTF-8, an unknown type, a stateless rule...). Blank lines are skipped. An I/O
/// error ends the stream with one final `Err` item whose rule is [`Rule::Syntax`] and whose detail
/// names the error, so a truncated or unreadable file is never mistaken for a complete one.
pub struct JsonLines<R> {
    reader: R,
    file: Arc<str>,
    line: u64,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> JsonLines<R> {
    /// Reads from `reader`, naming it `file` in origins.
    pub fn new(reader: R, file: &str) -> JsonLines<R> {
        JsonLines { reader, file: file.into(), line: 0, buf: Vec::with_capacity(256), done: false }
    }
}

impl<R: BufRead> Iterator for JsonLines<R> {
    type Item = (Origin, Result<Event, Violation>);

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            self.line += 1;
            let origin = Origin { file: self.file.clone(), line: self.line };
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    let complete = self.buf.last() == Some(&b'\n');
                    let bytes = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
                    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                    let text = match std::str::from_utf8(bytes) {
                        Ok(t) => t,
                        Err(e) => {
                            let v = Violation::new(
                                Rule::Syntax,
                                format!(
                                    "the line is not UTF-8 (invalid byte at column {})",
                                    e.valid_up_to() + 1
                                ),
                            );
                            return Some((origin, Err(v)));
                        }
                    };
                    if text.trim().is_empty() {
                        continue;
                    }
                    let parsed = parse_line(text).map_err(|v| {
                        if complete {
                            v
                        } else {
                            // The last line has no newline: most likely a truncated file.
                            Violation::new(
                                v.rule,
                                format!(
                                    "{} (the file ends inside this line: truncated?)",
                                    v.detail
                                ),
                            )
                        }
                    });
                    return Some((origin, parsed));
                }
                Err(e) => {
                    self.done = true;
                    return Some((
                        origin,
                        Err(Violation::new(Rule::Syntax, format!("read error: {e}"))),
                    ));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_and_skips_blanks() {
        let input = b"{\"type\":\"MidnightTick\",\"at\":\"2026-03-02\"}\n\n  \r\n{\"type\":\"Nope\",\"at\":\"2026-03-02\"}\n\xff\n{\"type\":\"MidnightTick\",\"at\":\"2026-03-03\"}";
        let items: Vec<_> = JsonLines::new(&input[..], "x.jsonl").collect();
        assert_eq!(items.len(), 4);
        assert_eq!(items[0].0.to_string(), "x.jsonl:1");
        assert!(items[0].1.is_ok());
        assert_eq!(items[1].0.line, 4);
        assert_eq!(items[1].1.as_ref().unwrap_err().rule, Rule::UnknownType);
        assert_eq!(items[2].0.line, 5);
        assert!(items[2].1.as_ref().unwrap_err().detail.contains("not UTF-8"));
        // A complete event on a last line without newline is fine.
        assert!(items[3].1.is_ok());
    }

    #[test]
    fn truncated_last_line_says_so() {
        let input = b"{\"type\":\"MidnightTick\",\"at\":\"2026-03-02\"}\n{\"type\":\"Midn";
        let items: Vec<_> = JsonLines::new(&input[..], "-").collect();
        let err = items[1].1.as_ref().unwrap_err();
        assert!(err.detail.contains("truncated"), "{err}");
    }
}
