//! Unit tests of the XML-era reader.
