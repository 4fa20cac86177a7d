"""sebench.data"""
