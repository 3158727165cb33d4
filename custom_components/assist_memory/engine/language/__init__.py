"""Language: keywords, spoken-language clean-up, secrets, memory sentences and extraction."""
