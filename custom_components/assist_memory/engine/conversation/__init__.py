"""Around a conversation turn: the conversation log, working memory, the prompt block, the profile."""
