//! Engine.IO v4 packets: the framing under Socket.IO.
//!
//! A text packet is one type digit followed by its data (`4hello`). Over
//! HTTP long-polling several packets travel in one body separated by the
//! record separator `\x1e`, and binary packets are written as `b<base64>`.
//! Over WebSocket each packet is one frame and binary packets are raw
//! binary frames.

use actix_web::web::Bytes;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use bytestring::ByteString;

/// Separates packets in a long-polling payload.
pub const RECORD_SEPARATOR: char = '\x1e';

/// An Engine.IO packet received from a client. Text borrows from the frame
/// or request body it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet<'a> {
    Open(&'a str),
    Close,
    Ping(&'a str),
    Pong(&'a str),
    Message(&'a str),
    Upgrade,
    Noop,
    Binary(Bytes),
}

/// Why a packet could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    Empty,
    UnknownType(char),
    InvalidBase64,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Empty => f.write_str("empty packet"),
            DecodeError::UnknownType(c) => write!(f, "unknown packet type {c:?}"),
            DecodeError::InvalidBase64 => f.write_str("invalid base64 in binary packet"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Reads one text packet (a WebSocket text frame or one polling record
/// that does not start with `b`).
pub fn decode_text(text: &str) -> Result<Packet<'_>, DecodeError> {
    let mut chars = text.chars();
    let kind = chars.next().ok_or(DecodeError::Empty)?;
    // Type digits are ASCII, so the data starts at byte 1.
    let data = &text[kind.len_utf8()..];
    Ok(match kind {
        '0' => Packet::Open(data),
        '1' => Packet::Close,
        '2' => Packet::Ping(data),
        '3' => Packet::Pong(data),
        '4' => Packet::Message(data),
        '5' => Packet::Upgrade,
        '6' => Packet::Noop,
        other => return Err(DecodeError::UnknownType(other)),
    })
}

/// Reads one polling record: `b<base64>` is binary, anything else text.
pub fn decode_record(record: &str) -> Result<Packet<'_>, DecodeError> {
    match record.strip_prefix('b') {
        Some(b64) => BASE64
            .decode(b64)
            .map(|v| Packet::Binary(Bytes::from(v)))
            .map_err(|_| DecodeError::InvalidBase64),
        None => decode_text(record),
    }
}

/// Splits a long-polling request body into its packets.
pub fn decode_payload(body: &str) -> impl Iterator<Item = Result<Packet<'_>, DecodeError>> {
    body.split(RECORD_SEPARATOR).map(decode_record)
}

/// A packet on its way to a client, already encoded for WebSocket: text
/// frames carry the type digit, binary frames the raw attachment. Both are
/// reference counted so one encoding can fan out to many sockets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutPacket {
    Text(ByteString),
    Binary(Bytes),
}

impl OutPacket {
    pub fn open(json: &str) -> Self {
        Self::text_with_type('0', json)
    }
    pub fn close() -> Self {
        OutPacket::Text(ByteString::from_static("1"))
    }
    pub fn ping() -> Self {
        OutPacket::Text(ByteString::from_static("2"))
    }
    pub fn pong(data: &str) -> Self {
        Self::text_with_type('3', data)
    }
    pub fn noop() -> Self {
        OutPacket::Text(ByteString::from_static("6"))
    }

    fn text_with_type(kind: char, data: &str) -> Self {
        let mut s = String::with_capacity(1 + data.len());
        s.push(kind);
        s.push_str(data);
        OutPacket::Text(ByteString::from(s))
    }

    /// Length this packet adds to a polling payload.
    fn polling_len(&self) -> usize {
        match self {
            OutPacket::Text(t) => t.len(),
            OutPacket::Binary(b) => 1 + b.len().div_ceil(3) * 4,
        }
    }
}

/// Joins packets into one long-polling response body.
pub fn encode_payload(packets: &[OutPacket]) -> String {
    let len = packets.iter().map(|p| p.polling_len() + 1).sum();
    let mut out = String::with_capacity(len);
    for (i, p) in packets.iter().enumerate() {
        if i > 0 {
            out.push(RECORD_SEPARATOR);
        }
        match p {
            OutPacket::Text(t) => out.push_str(t),
            OutPacket::Binary(b) => {
                out.push('b');
                BASE64.encode_string(b, &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_packet_type() {
        assert_eq!(decode_text("0{}"), Ok(Packet::Open("{}")));
        assert_eq!(decode_text("1"), Ok(Packet::Close));
        assert_eq!(decode_text("2probe"), Ok(Packet::Ping("probe")));
        assert_eq!(decode_text("3"), Ok(Packet::Pong("")));
        assert_eq!(decode_text("4hello é"), Ok(Packet::Message("hello é")));
        assert_eq!(decode_text("5"), Ok(Packet::Upgrade));
        assert_eq!(decode_text("6"), Ok(Packet::Noop));
    }

    #[test]
    fn rejects_malformed_packets() {
        assert_eq!(decode_text(""), Err(DecodeError::Empty));
        assert_eq!(decode_text("7"), Err(DecodeError::UnknownType('7')));
        assert_eq!(decode_text("éa"), Err(DecodeError::UnknownType('é')));
        assert_eq!(decode_record("b!!!"), Err(DecodeError::InvalidBase64));
    }

    #[test]
    fn splits_polling_payloads() {
        let got: Vec<_> = decode_payload("4hello\x1e2\x1ebAQID").collect();
        assert_eq!(
            got,
            vec![
                Ok(Packet::Message("hello")),
                Ok(Packet::Ping("")),
                Ok(Packet::Binary(Bytes::from_static(&[1, 2, 3]))),
            ]
        );
    }

    #[test]
    fn encodes_polling_payloads() {
        let body = encode_payload(&[
            OutPacket::ping(),
            OutPacket::Text("4hi".into()),
            OutPacket::Binary(Bytes::from_static(&[1, 2, 3])),
        ]);
        assert_eq!(body, "2\x1e4hi\x1ebAQID");
        assert_eq!(encode_payload(&[]), "");
    }
}
