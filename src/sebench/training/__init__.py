"""sebench.training"""
