"""sebench.library"""
