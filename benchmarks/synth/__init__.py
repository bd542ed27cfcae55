"""Ground-truth suite: benchmark instances rendered from real aerial imagery with cameras we place."""
