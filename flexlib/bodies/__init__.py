"""The beam: its equations in a floating frame, and its bases (modal, finite elements, partitioned)."""
