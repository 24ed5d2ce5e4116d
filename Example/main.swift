print("LiveResults example: coming soon")
