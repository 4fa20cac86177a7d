"""sebench.grading"""
