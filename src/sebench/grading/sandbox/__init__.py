"""sebench.grading.sandbox"""
