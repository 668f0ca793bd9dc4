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

/// Whether two points are surely more than `radius_km` apart judging by latitude alone: the
/// great-circle distance is never shorter than the arc along the meridian. A radius search
/// over many merchants skips the trigonometry for nearly all of them with this.
pub fn surely_farther(lat1: f64, lat2: f64, radius_km: f64) -> bool {
    (lat2 - lat1).abs().to_radians() * EARTH_RADIUS_KM > radius_km
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
    fn the_latitude_test_never_drops_a_point_inside_the_radius() {
        let (lat, lon) = (52.37, 4.895);
        for (dlat, dlon) in [
            (0.0, 0.0),
            (0.02, 0.0),
            (0.0269, 0.03),
            (-0.02, -0.04),
            (0.1, 0.0),
        ] {
            let (lat2, lon2) = (lat + dlat, lon + dlon);
            if distance_km(lat, lon, lat2, lon2) <= 3.0 {
                assert!(!surely_farther(lat, lat2, 3.0), "{dlat} {dlon}");
            }
        }
        assert!(
            surely_farther(52.37, 52.40, 3.0),
            "0.03° of latitude is 3.3 km"
        );
        assert!(!surely_farther(52.37, 52.39, 3.0));
        assert!(!surely_farther(0.0, 80.0, MAX_RADIUS_KM));
    }

    #[test]
    fn rounds_to_metres() {
        assert_eq!(round_km(1.23456), 1.235);
        assert_eq!(round_km(0.0004), 0.0);
    }
}
