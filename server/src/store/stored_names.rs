//! Enums the store keeps as text, each variant with its one name.

/// An enum whose variants are stored as the names given: `as_str` writes them, and
/// `TryFrom<String>` reads them back (`#[sqlx(try_from = "String")]` on a record's field).
macro_rules! stored_names {
    ($(#[$meta:meta])* pub enum $name:ident {
        $($(#[$doc:meta])* $variant:ident => $text:literal,)+
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$doc])* $variant,)+
        }

        impl $name {
            /// The name stored.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }
        }

        impl TryFrom<String> for $name {
            type Error = String;

            fn try_from(value: String) -> Result<Self, String> {
                [$(Self::$variant,)+]
                    .into_iter()
                    .find(|known| known.as_str() == value)
                    .ok_or_else(|| format!("unknown {} {value:?}", stringify!($name)))
            }
        }
    };
}

pub(crate) use stored_names;
