"""sebench.prompts"""
