"""What teaching views and tutorials add to the viewport, each as one registered layer."""
