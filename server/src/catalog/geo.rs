//! Great-circle distance for geo-filtered merchant search.

/// Mean Earth radius (IUGG), in kilometres.
const EARTH_RADIUS_KM: f64 = 6371.0088;

/// Half the Earth's circumference: no two points are farther apart, so a larger search radius
/// means nothing.
pub const MAX_RADIUS_KM: f64 = 20_015.1;

/// Haversine distance in kilometres between two WGS 84 points given in degrees. The haversine
/// form stays accurate for short distances, which is where nearest-first ordering matters.
pub fn distance_km(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (phi1, phi2) = (lat1.to_radians(), lat2.to_radians());
    let d_phi = (lat2 - lat1).to_radians();
    let d_lambda = (lon2 - lon1).to_radians();
    let a = (d_phi / 2.0).sin().powi(2) + phi1.cos() * phi2.cos() * (d_lambda / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * a.sqrt().min(1.0).asin()
}

/// Rounded to metres, as the wire shows it.
pub fn round_km(km: f64) -> f64 {
    (km * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_distances() {
        // Amsterdam Centraal to Utrecht Centraal: about 35 km as the crow flies.
        let d = distance_km(52.3791, 4.9003, 52.0894, 5.1101);
        assert!((d - 35.2).abs() < 0.5, "{d}");
        assert_eq!(distance_km(52.0, 4.0, 52.0, 4.0), 0.0);
        // Antipodes: half the circumference.
        let d = distance_km(0.0, 0.0, 0.0, 180.0);
        assert!((d - MAX_RADIUS_KM).abs() < 1.0, "{d}");
        // Across the antimeridian is short, not around the world.
        let d = distance_km(0.0, 179.9, 0.0, -179.9);
        assert!(d < 25.0, "{d}");
    }

    #[test]
    fn rounds_to_metres() {
        assert_eq!(round_km(1.23456), 1.235);
        assert_eq!(round_km(0.0004), 0.0);
    }
}
