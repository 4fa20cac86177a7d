"""sebench.reports"""
